#!/usr/bin/env bash
# A fresh consumer project against the installed artifacts: the README's quickstart block becomes
# consumer.Quickstart, compiled with only the coordinates the README gives (src/it/consumer/pom.xml),
# run with no JVM flags; the enforcer's dependencyConvergence fails the build if any artifact
# resolves to two versions. Run from the repository root after `./mvnw -B install` (.ci/run does).
#   bash src/it/consumer.sh            (about 1 minute)
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { echo "[consumer-it] $*"; }
C=src/it/consumer
SRC=$C/src/main/java/consumer/Quickstart.java
mkdir -p "$(dirname "$SRC")"
# the first ```java block after "## Quickstart": imports first, the rest is main's body
BLOCK=$(awk '/^## Quickstart/{q=1} q&&/^```java/{b=1;next} b&&/^```/{exit} b{print}' README.md)
[ -n "$BLOCK" ] || { say "FAIL: no java block under ## Quickstart in README.md"; exit 1; }
{
  echo "package consumer;"
  echo "$BLOCK" | grep '^import '
  echo "import java.nio.file.*;"
  echo "import java.nio.charset.StandardCharsets;"
  echo "import java.time.*;"
  echo "import java.util.*;"
  echo "public class Quickstart {"
  echo "  public static void main(String[] args) throws Exception {"
  echo "$BLOCK" | grep -v '^import '
  echo "  }"
  echo "}"
} > "$SRC"
./mvnw -B -q -f $C/pom.xml package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
./mvnw -B -q -f $C/pom.xml dependency:tree -DoutputFile=target/tree.txt
say "dependency tree:"; sed 's/^/[consumer-it]   /' $C/target/tree.txt
CP="$C/target/classes:$(cat $C/target/classpath.txt)"
OUT=$(java -cp "$CP" consumer.Quickstart 2>&1)
echo "$OUT" | sed 's/^/[consumer-it] java 17: /'
echo "$OUT" | grep -q 'gets=' || { say "FAIL: the quickstart did not print its stats"; exit 1; }
if echo "$OUT" | grep -qi 'exception\|add-opens'; then say "FAIL: the quickstart failed or asked for flags"; exit 1; fi
# JDK 25 and later: also with sun.misc.Unsafe memory access denied (JEP 471), as a later JDK will by default
for JDK in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-21-openjdk-amd64; do
  if [ -x "$JDK/bin/java" ]; then
    FLAGS=()
    if "$JDK/bin/java" --sun-misc-unsafe-memory-access=deny -version >/dev/null 2>&1; then
      FLAGS=(--sun-misc-unsafe-memory-access=deny)
    fi
    OUT=$("$JDK/bin/java" "${FLAGS[@]}" -cp "$CP" consumer.Quickstart 2>&1) || { echo "$OUT"; say "FAIL on $JDK ${FLAGS[*]}"; exit 1; }
    if echo "$OUT" | grep -qi 'exception\|unsafe'; then echo "$OUT"; say "FAIL on $JDK ${FLAGS[*]}: an exception or an Unsafe warning"; exit 1; fi
    echo "$OUT" | sed "s|^|[consumer-it] $(basename $JDK) ${FLAGS[*]}: |"
    echo "$OUT" | grep -q 'gets=' || { say "FAIL: the quickstart did not run on $JDK"; exit 1; }
  fi
done
say "PASS: README quickstart compiled from the README's coordinates, ran with no JVM flags, one version per artifact"
