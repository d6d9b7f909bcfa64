package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.entry;
import static io.hybridcache.core.engine.SmallTestKeys.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.engine.SmallSetPage.Entry;
import io.hybridcache.core.engine.SmallSetPage.Page;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
    assertEquals(SmallSetPage.CAPACITY_BYTES, whole.bytes());
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
    ByteBuffer old = page(entries(24, 100, 1)); // 3,828 B of entries: pages differ up to there
    ByteBuffer fresh = page(entries(24, 100, 2));
    for (int cut = 512; cut < 3828; cut += 512) {
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

  private static ByteBuffer copy(ByteBuffer b) {
    ByteBuffer c = Device.allocateAligned(SmallSetPage.PAGE_BYTES);
    c.put(0, b, 0, SmallSetPage.PAGE_BYTES);
    return c;
  }
}
