package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.entry;
import static io.hybridcache.core.engine.SmallTestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.engine.SmallSetPage.Entry;
import io.hybridcache.core.engine.SmallSetPage.Page;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The set page format: round trip, and every kind of damage reads as an empty set, never a wrong entry. */
class SmallSetPageTest {
  private static final int SET = 7;
  private static final long EPOCH = 0x1234_5678_9abc_def0L;

  private static List<Entry> entries(int count, int valueBytes, int version) {
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(entry(i, version, valueBytes + i, 100 + i).withRrpv(i % 8));
    }
    return out;
  }

  private static ByteBuffer page(List<Entry> entries) {
    ByteBuffer page = Device.allocateAligned(SmallSetPage.PAGE_BYTES);
    SmallSetPage.encode(page, SET, EPOCH, 3, entries);
    return page;
  }

  @Test
  void roundTripKeepsEveryField() {
    List<Entry> in = entries(20, 100, 1);
    in.set(3, new Entry(key(3), new byte[0], KeyHash.of(key(3)), 5, 1_700_000_000_000L, 0)); // empty value, expiry
    Page out = SmallSetPage.decode(page(in), SET, EPOCH);
    assertNotNull(out);
    assertEquals(3, out.generation());
    assertEquals(in.size(), out.entries().size());
    for (int i = 0; i < in.size(); i++) {
      Entry a = in.get(i);
      Entry b = out.entries().get(i);
      assertArrayEquals(a.key(), b.key());
      assertArrayEquals(a.value(), b.value());
      assertEquals(a.keyHash(), b.keyHash());
      assertEquals(a.sequence(), b.sequence());
      assertEquals(a.expiryMillis(), b.expiryMillis());
      assertEquals(a.rrpv(), b.rrpv());
    }
  }

  @Test
  void findReturnsTheEntryAndItsPositionOrNull() {
    List<Entry> in = entries(10, 50, 1);
    ByteBuffer page = page(in);
    for (int i = 0; i < in.size(); i++) {
      SmallSetPage.Found f = SmallSetPage.find(page, SET, EPOCH, key(i));
      assertEquals(i, f.position());
      assertArrayEquals(in.get(i).value(), f.entry().value());
    }
    assertNull(SmallSetPage.find(page, SET, EPOCH, key(99)), "absent key of an intact page");
  }

  @Test
  void aFullPageFitsAndOneByteMoreIsRefused() {
    int valueBytes = SmallSetPage.MAX_KEY_AND_VALUE_BYTES - SmallTestKeys.KEY_BYTES;
    Entry whole = entry(1, 1, valueBytes, 1);
    assertTrue(whole.bytes() <= SmallSetPage.CAPACITY_BYTES, whole.bytes() + " B");
    assertEquals(1, SmallSetPage.decode(page(List.of(whole)), SET, EPOCH).entries().size());
    assertThrows(IllegalArgumentException.class, () -> entry(1, 1, valueBytes + 1, 1));
    assertThrows(IllegalArgumentException.class, () -> page(List.of(whole, entry(2, 1, 0, 2))));
  }

  /** One flipped byte anywhere (header, entry, zero tail) makes the page unreadable. */
  @Test
  void aFlippedByteAnywhereIsDamage() {
    ByteBuffer clean = page(entries(12, 100, 1));
    for (int at = 0; at < SmallSetPage.PAGE_BYTES; at += 37) {
      ByteBuffer page = copy(clean);
      page.put(at, (byte) (page.get(at) ^ 0x10));
      assertNull(SmallSetPage.decode(page, SET, EPOCH), "flip at " + at);
      assertSame(SmallSetPage.DAMAGED, SmallSetPage.find(page, SET, EPOCH, key(0)), "flip at " + at);
    }
  }

  /** A crash during a page write leaves old and new sectors mixed: never served. */
  @Test
  void aTornPageIsDamage() {
    ByteBuffer old = page(entries(24, 100, 1));
    ByteBuffer fresh = page(entries(24, 100, 2));
    int end = SmallSetPage.HEADER_BYTES + SmallSetPage.bytesOf(entries(24, 100, 1)); // pages differ up to there
    assertTrue(end > 3 * 512, end + " B");
    for (int cut = 512; cut < end; cut += 512) {
      ByteBuffer torn = copy(old);
      torn.put(0, fresh, 0, cut);
      assertNull(SmallSetPage.decode(torn, SET, EPOCH), "new up to " + cut);
      ByteBuffer reverse = copy(fresh);
      reverse.put(0, old, 0, cut);
      assertNull(SmallSetPage.decode(reverse, SET, EPOCH), "old up to " + cut);
    }
  }

  @Test
  void aPageOfAnotherSetOrEpochOrVersionIsNotThisSet() {
    ByteBuffer page = page(entries(5, 100, 1));
    assertNull(SmallSetPage.decode(page, SET + 1, EPOCH));
    assertSame(SmallSetPage.DAMAGED, SmallSetPage.find(page, SET + 1, EPOCH, key(0)));
    assertNull(SmallSetPage.decode(page, SET, EPOCH + 1), "a page of an earlier open");
    ByteBuffer other = copy(page);
    other.put(8, (byte) (SmallSetPage.FORMAT_VERSION + 1));
    assertNull(SmallSetPage.decode(other, SET, EPOCH));
    assertNull(SmallSetPage.decode(Device.allocateAligned(SmallSetPage.PAGE_BYTES), SET, EPOCH), "zeros");
  }

  /**
   * Issue 36's flash overhead: a 24 B key and a 100 B value without expiry carry at most 8 B besides them
   * for every sequence below 2^35, and a page holds as many such entries as that allows.
   */
  @Test
  void aHundredByteEntryCarriesAtMostEightBytesBesidesKeyAndValue() {
    for (long sequence : new long[] {1, (1L << 21) - 1, (1L << 28) - 1, (1L << 35) - 1}) {
      Entry e = entry(1, 1, 100, sequence);
      int overhead = e.bytes() - SmallTestKeys.KEY_BYTES - 100;
      assertTrue(overhead <= 8, "sequence " + sequence + ": " + overhead + " B of header");
    }
    int perPage = SmallSetPage.CAPACITY_BYTES / entry(1, 1, 100, 1L << 27).bytes();
    assertEquals(31, perPage, "entries of 24 + 100 B (sequence 2^27) a page holds");
    List<Entry> in = new ArrayList<>();
    for (int i = 0; i < perPage; i++) {
      in.add(entry(i, 1, 100, (1L << 27) + i));
    }
    assertEquals(perPage, SmallSetPage.decode(page(in), SET, EPOCH).entries().size());
  }

  /** Every width of every variable-length field, expiry or none, comes back as written. */
  @Test
  void variableLengthFieldsRoundTripAtEveryWidth() {
    List<Entry> in = new ArrayList<>();
    long[] sequences = {0, 127, 128, 16_383, 16_384, (1L << 35), Long.MAX_VALUE};
    int[] values = {0, 127, 128, 1000};
    for (int i = 0; i < sequences.length; i++) {
      byte[] key = i == 0 ? new byte[128] : key(i); // a 2-byte key length too
      key[0] = (byte) i;
      long expiry = i % 2 == 0 ? 0 : 1_700_000_000_000L + i;
      in.add(new Entry(key, SmallTestKeys.value(i, 1, values[i % values.length]), KeyHash.of(key), sequences[i],
          expiry, i % 8));
    }
    Page out = SmallSetPage.decode(page(in), SET, EPOCH);
    assertNotNull(out);
    for (int i = 0; i < in.size(); i++) {
      Entry a = in.get(i);
      Entry b = out.entries().get(i);
      assertArrayEquals(a.key(), b.key(), "entry " + i);
      assertArrayEquals(a.value(), b.value(), "entry " + i);
      assertEquals(a.sequence(), b.sequence(), "entry " + i);
      assertEquals(a.expiryMillis(), b.expiryMillis(), "entry " + i);
      assertEquals(a.rrpv(), b.rrpv(), "entry " + i);
      assertArrayEquals(a.value(), SmallSetPage.find(page(in), SET, EPOCH, a.key()).entry().value(), "find " + i);
    }
    assertThrows(IllegalArgumentException.class, () -> entry(1, 1, 1, -1), "a negative sequence");
  }

  /**
   * An entry header that is implausible under a valid CRC (a writer's bug, bytes crafted to pass the
   * check) is damage, never a throw or a wrong entry: an overlong length, reserved flag bits, a length
   * running past the page.
   */
  @Test
  void anImplausibleHeaderUnderAValidChecksumIsDamage() {
    int first = SmallSetPage.HEADER_BYTES;
    int flags = first + 2; // key length 24 and value length 100: one byte each
    assertNull(SmallSetPage.decode(forged(first, (byte) 0x98, (byte) 0x00), SET, EPOCH), "overlong key length");
    assertNull(SmallSetPage.decode(forged(first, (byte) 0x00), SET, EPOCH), "zero key length");
    assertNull(SmallSetPage.decode(forged(flags, (byte) 0x10), SET, EPOCH), "reserved flag bit");
    assertNull(SmallSetPage.decode(forged(first + 1, (byte) 0xFF, (byte) 0x1F), SET, EPOCH), "value past the page");
    assertSame(SmallSetPage.DAMAGED, SmallSetPage.find(forged(flags, (byte) 0x10), SET, EPOCH, key(0)));
    // lengths whose sum overflows a long (key 1, value 2^63 - 1 in 9 bytes): damage, never a throw
    ByteBuffer overflow = forged(first, (byte) 0x01, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
        (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x7F, (byte) 0x00, (byte) 0x05); // flags 0, sequence 5
    assertNull(SmallSetPage.decode(overflow, SET, EPOCH), "lengths that overflow");
    assertSame(SmallSetPage.DAMAGED, SmallSetPage.find(overflow, SET, EPOCH, key(0)));
    assertSame(SmallSetPage.DAMAGED, SmallSetPage.at(overflow, SET, EPOCH, 0));
    // key 1, value 1, flags 0, then a 10-byte sequence (no long >= 0 needs one) whose last byte adds only bit 63
    assertNull(SmallSetPage.decode(forged(first, (byte) 0x01, (byte) 0x01, (byte) 0x00, (byte) 0x80, (byte) 0x80,
        (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x02), SET,
        EPOCH), "a 10-byte varint");
    assertNull(SmallSetPage.decode(forged(10, (byte) 0x00, (byte) 0x01), SET, EPOCH), "256 entries claimed");
  }

  /** A page exactly full (two entries, the second with an expiry) round-trips. */
  @Test
  void aPageFilledToItsLastByteRoundTrips() {
    Entry a = entry(1, 1, 1000, 5);
    int rest = SmallSetPage.CAPACITY_BYTES - a.bytes();
    int valueBytes = rest - SmallTestKeys.KEY_BYTES - SmallSetPage.headerBytes(SmallTestKeys.KEY_BYTES, 3000, 6, 9L);
    Entry b = new Entry(key(2), SmallTestKeys.value(2, 1, valueBytes), KeyHash.of(key(2)), 6, 9L, 0);
    assertEquals(SmallSetPage.CAPACITY_BYTES, a.bytes() + b.bytes());
    Page out = SmallSetPage.decode(page(List.of(a, b)), SET, EPOCH);
    assertEquals(2, out.entries().size());
    assertArrayEquals(b.value(), out.entries().get(1).value());
    assertEquals(9L, out.entries().get(1).expiryMillis());
  }

  /** A one-entry page (24 B key, 100 B value) with {@code bytes} written at {@code at} and the CRC made valid. */
  private static ByteBuffer forged(int at, byte... bytes) {
    ByteBuffer page = page(List.of(entry(0, 1, 100, 5)));
    page.put(at, bytes);
    CRC32C crc = new CRC32C();
    crc.update(page.duplicate().clear().position(8).limit(SmallSetPage.PAGE_BYTES));
    page.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(4, (int) crc.getValue());
    return page;
  }

  private static ByteBuffer copy(ByteBuffer b) {
    ByteBuffer c = Device.allocateAligned(SmallSetPage.PAGE_BYTES);
    c.put(0, b, 0, SmallSetPage.PAGE_BYTES);
    return c;
  }
}
