base:
  '*':
    - swapfile
