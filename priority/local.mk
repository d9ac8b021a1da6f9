# priority: build rules are added here.
