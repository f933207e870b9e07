base:
  '*':
    - golang
