company: Example Corp (dev)
nginx:
  port: 8000
