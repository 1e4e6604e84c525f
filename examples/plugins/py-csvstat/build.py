#!/usr/bin/python3
"""/usr/bin/python3 build.py OUT builds the csvstat plugin into OUT: one
executable zipapp holding csvstat.py, harness_plugin.py and the message
code protoc generates from pluginapi/proto. It is what

    protoc --python_out=DIR -I pluginapi/proto/... plugin.proto goplugin.proto health.proto
    cp csvstat.py harness_plugin.py DIR
    python3 -m zipapp DIR -p "/usr/bin/python3 -I" -m csvstat:main -o OUT

does, in a temp dir. The host runs a content-addressed copy of a plugin
file, away from this folder, so a plugin dir needs this one file.

It needs protoc (Debian: protobuf-compiler) to build, and, to run,
Debian's python3-grpcio and python3-protobuf for /usr/bin/python3 (the
interpreter the zipapp names; protoc 3.21 goes with python3-protobuf 4.21).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import zipapp

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.normpath(os.path.join(HERE, "..", "..", "..", "pluginapi", "proto"))
# Each .proto is compiled from its own folder, so that the modules land
# flat in the archive (plugin_pb2, goplugin_pb2, health_pb2): compiled
# from pluginapi/proto, health.proto would become the package grpc.health.v1
# and its folder grpc/ would hide the grpc library.
PROTOS = ["harness/plugin/v1/plugin.proto", "plugin/goplugin.proto", "grpc/health/v1/health.proto"]
SOURCES = ["csvstat.py", "harness_plugin.py"]
# -I: isolated from PYTHON* variables and the user's site-packages, so
# that only the system's packages (python3-grpcio, python3-protobuf) load.
INTERPRETER = "/usr/bin/python3 -I"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: /usr/bin/python3 build.py OUT\n")
        return 2
    out = os.path.abspath(argv[1])
    with tempfile.TemporaryDirectory(prefix="csvstat-build-") as tmp:
        app = os.path.join(tmp, "app")
        os.mkdir(app)
        for proto in PROTOS:
            folder, name = os.path.split(os.path.join(PROTO, proto))
            try:
                subprocess.run(["protoc", "-I", folder, "--python_out=" + app, name], check=True)
            except FileNotFoundError:
                sys.stderr.write("build.py: protoc not found; install it (Debian: apt-get install protobuf-compiler)\n")
                return 1
            except subprocess.CalledProcessError as err:
                sys.stderr.write(f"build.py: protoc {proto}: exit {err.returncode}\n")
                return 1
        for src in SOURCES:
            shutil.copy(os.path.join(HERE, src), app)
        tmp_out = os.path.join(tmp, "out")
        zipapp.create_archive(app, tmp_out, interpreter=INTERPRETER, main="csvstat:main")
        os.chmod(tmp_out, 0o755)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.move(tmp_out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
