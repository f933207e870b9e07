base:
  '*':
    - TEMPLATE
