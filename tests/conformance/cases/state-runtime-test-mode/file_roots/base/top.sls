base:
  '*':
    - tm
