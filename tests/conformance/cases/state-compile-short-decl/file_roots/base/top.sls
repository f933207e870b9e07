base:
  '*':
    - short
