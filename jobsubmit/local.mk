# jobsubmit: build rules are added here.
