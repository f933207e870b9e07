base:
  '*':
    - jenkins
