base:
  '*':
    - openvpn
