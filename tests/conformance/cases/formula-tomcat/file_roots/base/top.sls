base:
  '*':
    - tomcat
