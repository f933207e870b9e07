include:
  - .lint
dev_tools:
  test.nop:
    - name: tools {{ saltenv }} {{ sls }}
