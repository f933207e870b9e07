include:
  - .db
  - .common
  - dev: tools.lint
app_main:
  test.nop:
    - name: app main {{ sls }} {{ slspath }} {{ tpldir }} {{ saltenv }}
