base:
  '*':
    - nfs
