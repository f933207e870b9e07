base:
  '*':
    - mounted_own_top
