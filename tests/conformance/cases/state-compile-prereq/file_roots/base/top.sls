base:
  '*':
    - pre
