#!/usr/bin/env bash
# Builds the Java kit's sample bot into one runnable command: bin/rookery-java-bot (a launcher of
# the shaded jar bin/rookery-java-bot.jar).
#   ./build.sh         build (does nothing, not even start Maven, when no input changed)
#   ./build.sh test    build and run the unit tests (Surefire); skipped, with the saved log
#                      shown, when no input changed since they last passed
# Inputs: pom.xml, src/ and the contract in ../../proto. Extra Maven flags: $MAVEN_ARGS.
set -euo pipefail
cd "$(dirname "$0")"
KIT=$PWD
PROTO_DIR=${ROOKERY_PROTO_DIR:-$KIT/../../proto}
BIN=$KIT/bin/rookery-java-bot

inputs_hash() {
  { find src pom.xml -type f; find "$PROTO_DIR" -name '*.proto'; } \
    | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
}
HASH=$(inputs_hash)
MVN=(mvn -B -q -Drookery.proto.dir="$PROTO_DIR" ${MAVEN_ARGS:-})

install_launcher() {
  mkdir -p bin
  cp target/rookery-java-bot.jar bin/rookery-java-bot.jar.tmp
  mv bin/rookery-java-bot.jar.tmp bin/rookery-java-bot.jar
  cat > "$BIN" <<'LAUNCHER'
#!/usr/bin/env bash
# The Java kit's sample bot; JAVA_OPTS adds JVM options.
exec java ${JAVA_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1} -jar "$(dirname "$0")/rookery-java-bot.jar" "$@"
LAUNCHER
  chmod +x "$BIN"
  echo "$HASH" > .build.stamp
}

command -v mvn >/dev/null || { echo "build.sh: mvn not found (install Maven 3.8+ and a JDK 17)" >&2; exit 1; }
if [[ ${1:-} == test ]]; then
  if [[ -f .test.stamp && $(cat .test.stamp) == "$HASH" && -f .test.log && -x $BIN ]]; then
    cat .test.log
  else
    rm -f .test.stamp
    "${MVN[@]}" package > .test.log 2>&1 || { cat .test.log; exit 1; }
    cat target/surefire-reports/*.txt >> .test.log
    cat .test.log
    install_launcher
    echo "$HASH" > .test.stamp
  fi
elif [[ ! -x $BIN || ! -f .build.stamp || $(cat .build.stamp) != "$HASH" ]]; then
  "${MVN[@]}" -DskipTests package
  install_launcher
fi
echo "$BIN"
