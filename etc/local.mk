# etc: build rules are added here.
