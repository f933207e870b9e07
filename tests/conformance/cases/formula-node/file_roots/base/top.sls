base:
  '*':
    - node
