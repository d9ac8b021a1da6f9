# Manual pages: each part appends its own pages here.
