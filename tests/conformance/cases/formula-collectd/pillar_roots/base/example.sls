# -*- coding: utf-8 -*-
# vim: ft=yaml
---
collectd:
  FQDNLookup: true
  # To add new types to collectd, you need to reference the new file in TypesDB
  TypesDB: ['/usr/share/collectd/types.db', '/etc/collectd/plugins/types.db']
  # and add types below
  types:
    - 'jmx_memory  value:GAUGE:0:U'
  # if true, all non salt-managed files in plugindir will be removed
  purge_plugindir: false
  # if false, service is not enabled and not started
  enable_service: true
  plugins:
    default: [battery, cpu, entropy, load, memory, swap, users]
    curl_json:
      Url "http://127.0.0.1/status?json":
        instance: php-fpm
        keys:
          start since:
            type: uptime
          accepted conn:
            type: http_requests
          listen queue:
            type: phpfpm_listen_queue
          listen queue len:
            type: phpfpm_listen_queue
          max listen queue:
            type: phpfpm_listen_queue
          idle processes:
            type: phpfpm_processes
          active processes:
            type: phpfpm_processes
          total processes:
            type: phpfpm_processes
          max active processes:
            type: phpfpm_processes
          max children reached:
            type: phpfpm_processes
          slow requests:
            type: phpfpm_slow_requests
    curl_xml:
      Url "127.0.0.1/stats":
        instance: instance
        xpaths:
          - name: /stats
            data:
              type: uptime
              values_from:
                - uptime
    apache:
      instances:
        - name: name
          url: 'http://localhost/server-status?auto'
          user: user
          pass: pass
    bind:
      proto: http
      host: localhost
      port: 8053
      parsetime: true
      opcodes: true
      qtypes: true
      serverstats: true
      zonemaintstats: true
      resolverstats: false
      memorystats: true
      views:
        - name: _default
          qtypes: false
          resolverstats: false
          cacherrsets: false
          zones:
            - 127.in-addr.arpa/IN
    dbi:
      queries:
        - name: mysql_user_connections
          statement: >-
            SELECT user, count(*) as nof_connections
            FROM information_schema.processlist
            GROUP BY user
          results:
            - type: gauge
              instancePrefix: mysql_user_connections
              instancesFrom: user
              valuesFrom: nof_connections
      databases:
        - name: name
          driver: mysql
          queries:
            - mysql_user_connections
          driverOptions:
            - name: host
              value: 192.168.1.100
              # Another method is to use `grains.get`:
              # value: {{ salt['grains.get']('ip4_interfaces:eth1')[0] }}
            - name: username
              value: user
            - name: password
              value: pass
    exec:
      - Exec "myuser:mygroup" "myprog"
      - Exec "otheruser" "/path/to/another/binary" "arg0" "arg1"
      - NotificationExec "user" "/usr/lib/collectd/exec/handle_notification"
    syslog:
      loglevel: info
    network:
      host: 'logstash'
      port: 25826
      securitylevel: 'Encrypt'
      username: 'user'
      password: 'password'
    mysql:
      databases:
        - host: 'foo'
          port: '3306'
          user: 'myuser'
          pass: 'mypass'
          name: 'mydb'
          masterstats: true
        - host: 'foo'
          name: 'mydb'
          socket: '/var/run/mysql/mysqld.sock'
          slavestats: true
          slavenotifications: true
    postgresql:
      databases:
        - name: 'foo'
          host: 'hostname'
          port: '5432'
          user: 'username'
          pass: 'secret'
          sslmode: 'prefer'
          krbsrvname: 'kerberos_service_name'
          service: 'service_name'
          queries:
            - 'magic'
        - name: 'bar'
          service: 'service_name'
          queries:
            - 'backend'
            - 'rt36_tickets'
      queries:
        - name: 'magic'
          statement: "SELECT magic FROM wizard WHERE host = $1;"
          param: 'hostname'
          results:
            - type: 'gauge'
              instanceprefix: 'magic'
              valuesfrom: 'magic'
        - name: 'rt36_tickets'
          statement: |
            SELECT COUNT(type) AS count, type
            FROM (SELECT CASE
                         WHEN resolved = 'epoch' THEN 'open'
                         ELSE 'resolved' END AS type
                         FROM tickets) type
            GROUP BY type;
          results:
            - type: 'counter'
              instanceprefix: 'rt36_tickets'
              instancesfrom: 'type'
              valuesfrom: 'count'
    powerdns:
      socket: '/var/run/pdns.controlsocket'
    protocols:
      IgnoreSelected: true
    openldap:
      instances:
        - name: ldap
          url: ldap://localhost
          binddn: "cn=monitor, dc=example, dc=com"
          password: MyOwnPassword
          verifyhost: true
          starttls: true
          cacert: /etc/ssl/certs/ca-cert.pem
    df:
      Devices:
        - 'md1'
        - 'md2'
      MountPoints:
        - '/home'
      FSTypes:
        - 'ext4'
        - 'tmpfs'
      IgnoreSelected: false
      ReportByDevice: false
      ReportInodes: false
    ntpd:
      host: localhost
      port: 123
      ReverseLookups: 'false'
    java:
      host: localhost
      port: 17264
      user: ''
      pass: ''
      lib: '/usr/lib/jvm/java-7-oracle/jre/lib/amd64/libjava.so'
    ethstat:
      interface: 'eth0'
    interface:
      interfaces: ['eth0', 'lo0']
      IgnoreSelected: 'false'
    # defaults as of 20141103
    ping:
      hosts: ['google.com', 'yahoo.com']
      # interval: 1.0
      # timeout: 0.9
      # ttl: 64
      # sourceaddress: 10.0.1.1
      # device: eth0
      # maxmissed: -1
    disk:
      matches: ['/^[hs]d[a-f][0-9]?$/']
    write_graphite:
      name: graphite
      host: graphite-host
      port: "2003"
      protocol: "tcp"
      prefix: "collectd."
      postfix: ""
      logsenderrors: false
      escapecharacter: "_"
      separateinstances: true
      storerates: true
      alwaysappendds: false
    processes:
      Processes:
        - 'java'
        - 'python'
      ProcessMatches:
        - '.*java.*'
    statsd:
      host: localhost
      port: 8125
    tail:
      - file: '/var/log/exim4/mainlog'
        instance: exim
        match:
          - instance: 'total'
            dstype: 'CounterAdd'
            type: 'ipt_bytes'
            regex: 'S=([1-9][0-9]*)'
          - instance: 'local_user'
            dstype: 'CounterInc'
            type: 'counter'
            regex: '\\<R=local_user\\>'
    md:
      Device: ['md1', 'md2']
      IgnoreSelected: false
    librato:
      user: example@example.com
      token: deadbeef
    python:
      Globals: true
      ModulePath: "/usr/share/collectd/modules"
      LogTraces: true
      Interactive: false
      modules:
        module_name:  # Replace module_name by your Python module
          variables:
            var1: value1
            var2: value2
    extra:
      cpu:
        ReportByCpu: false
    tcpconns:
      listening_ports: 'true'
      all_ports_summary: 'false'
      local_ports: []
      remote_ports: []
    openvpn:
      status_file:
        - "/var/log/openvpn/openvpn-status.log"
      individual_users: 'false'
      user_count: 'true'
      compression: 'false'
      improved_naming_scheme: 'true'
    rabbitmq:
      username: 'guest'
      password: 'guest'
      realm: 'RabbitMQ Management'
      host: 'localhost'
      port: 15672
      ignore_queue_regex:
        - '^queue'
      ignore_exchange_regex:
        - '^exchange'
    zookeeper:
      host: localhost
      port: 2181
