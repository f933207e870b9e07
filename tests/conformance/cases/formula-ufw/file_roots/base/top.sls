base:
  '*':
    - ufw
