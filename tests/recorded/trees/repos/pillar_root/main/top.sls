base:
  '*':
    - outside_root
