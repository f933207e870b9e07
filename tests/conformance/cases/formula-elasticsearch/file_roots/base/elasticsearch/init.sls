include:
  - elasticsearch.pkg
  - elasticsearch.config
  - elasticsearch.sysconfig
  - elasticsearch.jvmopts
  - elasticsearch.service
  - elasticsearch.plugins
