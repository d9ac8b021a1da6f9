# spank: build rules are added here.
