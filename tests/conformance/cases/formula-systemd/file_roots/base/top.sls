base:
  '*':
    - systemd
