clamav:
  clamd:
    config:
      LogFile: /var/log/clamav/clamd.log
      LogTime: 'yes'
      LogFileMaxSize: 0
      PidFile: /run/clamav/clamd.pid
      TemporaryDirectory: /tmp
      LocalSocket: /var/lib/clamav/clamd.sock
      LocalSocketGroup: clamav
      LocalSocketMode: 660
      FixStaleSocket: 'yes'
      User: clamav
      SelfCheck: 3600
      
  freshclam:
    config:
      UpdateLogFile: /var/log/clamav/freshclam.log
      LogFileMaxSize: 0
      DatabaseMirror: database.clamav.net
      NotifyClamd: /etc/clamav/clamd.conf
      MaxAttempts: 5
