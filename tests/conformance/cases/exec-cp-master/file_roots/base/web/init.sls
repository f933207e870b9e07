nginx:
  pkg.installed: []
