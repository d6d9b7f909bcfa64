package io.hybridcache.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
  private static Map<String, byte[]> record(int fields, int bytes) {
    Map<String, byte[]> m = new LinkedHashMap<>();
    for (int i = 0; i < fields; i++) {
      byte[] v = new byte[bytes];
      Arrays.fill(v, (byte) i);
      m.put("field" + i, v);
    }
    return m;
  }

  @Test
  void roundTripsAndHasTheDocumentedSize() {
    Map<String, byte[]> m = record(10, 100);
    byte[] enc = RecordCodec.encode(m);
    assertEquals(1082, enc.length);
    Map<String, byte[]> dec = RecordCodec.decode(enc);
    assertEquals(List.copyOf(m.keySet()), List.copyOf(dec.keySet()));
    for (String k : m.keySet()) {
      assertArrayEquals(m.get(k), dec.get(k));
    }
  }

  @Test
  void decodesOnlyRequestedFields() {
    byte[] enc = RecordCodec.encode(record(10, 100));
    Map<String, byte[]> dec = RecordCodec.decode(enc, Set.of("field3", "nosuch"));
    assertEquals(Set.of("field3"), dec.keySet());
    assertEquals(3, dec.get("field3")[0]);
  }

  @Test
  void mergeOverwritesAndAdds() {
    byte[] enc = RecordCodec.encode(record(2, 3));
    Map<String, byte[]> upd = new LinkedHashMap<>();
    upd.put("field1", "new".getBytes(StandardCharsets.UTF_8));
    upd.put("extra", new byte[300]);
    Map<String, byte[]> dec = RecordCodec.decode(RecordCodec.merge(enc, upd));
    assertEquals(List.of("field0", "field1", "extra"), List.copyOf(dec.keySet()));
    assertArrayEquals("new".getBytes(StandardCharsets.UTF_8), dec.get("field1"));
    assertEquals(300, dec.get("extra").length);
    assertEquals(Set.of("extra"), RecordCodec.decode(RecordCodec.merge(null, Map.of("extra", new byte[1]))).keySet());
  }

  @Test
  void emptyAndLargeFields() {
    assertEquals(0, RecordCodec.decode(RecordCodec.encode(Map.of())).size());
    byte[] big = new byte[200_000];
    assertEquals(200_000, RecordCodec.decode(RecordCodec.encode(Map.of("é", big))).get("é").length);
  }

  @Test
  void rejectsCorruptRecords() {
    byte[] enc = RecordCodec.encode(record(2, 10));
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(Arrays.copyOf(enc, enc.length - 1)));
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(Arrays.copyOf(enc, enc.length + 1)));
    byte[] wrongVersion = enc.clone();
    wrongVersion[0] = 9;
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(wrongVersion));
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(new byte[0]));
    assertThrows(IllegalArgumentException.class,
        () -> RecordCodec.decode(new byte[] {1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}));
  }
}
