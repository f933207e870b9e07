base:
  '*':
    - sun-java
