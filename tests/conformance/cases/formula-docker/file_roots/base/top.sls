base:
  '*':
    - docker
