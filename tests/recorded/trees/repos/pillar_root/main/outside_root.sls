outside_root: true
