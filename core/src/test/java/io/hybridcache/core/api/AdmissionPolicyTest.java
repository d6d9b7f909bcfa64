package io.hybridcache.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AdmissionPolicyTest {
  @Test
  void randomRejectAdmitsAboutItsShare() {
    RandomReject p = new RandomReject(0.3);
    int admitted = 0;
    for (int i = 0; i < 100_000; i++) {
      if (p.accept(i, 100)) {
        admitted++;
      }
    }
    assertEquals(30_000, admitted, 1_500);
    assertEquals(100_000 - admitted, p.rejected());
  }

  @Test
  void writeRateBudgetRefillsWithTime() {
    AtomicLong now = new AtomicLong(0);
    WriteRateBudget p = new WriteRateBudget(10_000, now::get);
    assertTrue(p.accept(1, 6_000));
    assertTrue(p.accept(2, 4_000));
    assertFalse(p.accept(3, 1), "one second of budget spent");
    now.addAndGet(500_000_000L); // half a second later: 5000 bytes back
    assertTrue(p.accept(4, 5_000));
    assertFalse(p.accept(5, 100));
    now.addAndGet(10_000_000_000L); // a long pause refills no more than one second's worth
    assertTrue(p.accept(6, 10_000));
    assertFalse(p.accept(7, 1));
    assertEquals(3, p.rejected());
  }

  @Test
  void secondHitAdmitsOnlyRepeatedKeys() {
    SecondHit p = new SecondHit(1024);
    assertFalse(p.accept(42, 10));
    assertTrue(p.accept(42, 10));
    assertFalse(p.accept(43, 10));
    assertEquals(2, p.rejected());
  }

  @Test
  void parseNamesTheFieldOnBadSpecs() {
    assertInstanceOf(AcceptAll.class, AdmissionPolicies.parse("admission", "accept-all"));
    assertInstanceOf(RandomReject.class, AdmissionPolicies.parse("admission", "random:0.5"));
    assertInstanceOf(WriteRateBudget.class, AdmissionPolicies.parse("admission", "write-rate:1000000"));
    assertInstanceOf(SecondHit.class, AdmissionPolicies.parse("admission", "second-hit:4096"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AdmissionPolicies.parse("flash.admission", "random:2"));
    assertTrue(e.getMessage().startsWith("flash.admission"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> AdmissionPolicies.parse("flash.admission", "lru"));
    assertTrue(e.getMessage().contains("'lru'"), e.getMessage());
  }
}
