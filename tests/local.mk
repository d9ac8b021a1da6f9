# tests: build rules are added here.
