## Automate tasks in logical sequence ...

include:
  - .delete
  - .set
  - .create
  - .add
