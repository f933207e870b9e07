include:
  - ..common
  - .client
db_server:
  test.nop:
    - name: {{ sls }} in {{ slspath }}
