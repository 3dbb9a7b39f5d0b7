# Python's half of ./preload.cjs, loaded by every Python process a test starts with this folder on
# PYTHONPATH: a lookup of a name or address off loopback answers the test's stand-in
# (TEST_OFF_MACHINE_STAND_IN=127.0.0.1:PORT), address and port, so a connection that a proxy
# variable failed to route reaches the stand-in and never DNS or the Internet.
import os
import re
import socket

_given = os.environ.get('TEST_OFF_MACHINE_STAND_IN', '')
if _given:
    _host, _, _port = _given.rpartition(':')
    _getaddrinfo = socket.getaddrinfo

    def _loopback(host):
        name = host.decode() if isinstance(host, bytes) else str(host)
        name = name.lower().strip('[]').rstrip('.')
        if name == 'localhost' or name.endswith('.localhost') or name in ('::1', '::', '0.0.0.0'):
            return True
        return re.fullmatch(r'(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}', name) is not None

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        if host is None or _loopback(host):
            return _getaddrinfo(host, port, family, type, proto, flags)
        kind = type or socket.SOCK_STREAM
        return [(socket.AF_INET, kind, proto or (socket.IPPROTO_TCP if kind == socket.SOCK_STREAM else 0), '', (_host, int(_port)))]

    socket.getaddrinfo = getaddrinfo
