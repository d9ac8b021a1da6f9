# bridge: build rules are added here.
