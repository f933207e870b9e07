base:
  '*':
    - motd
