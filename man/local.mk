# man: build rules are added here.
