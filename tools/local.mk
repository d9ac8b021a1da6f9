# tools: build rules are added here.
