include:
  - web.back
  - app.db.*
web_front:
  test.nop
