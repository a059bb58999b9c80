package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetryShareTest {

  private final RetryShare share = new RetryShare("test.scope");

  @Test
  void aNewCommandClaimsFirst() {
    assertFalse(share.readFirst());
    assertEquals(0, share.share());
  }

  @Test
  void firstExecutionsKeepItClaimingFirst() {
    for (int i = 0; i < 1_000; i++) {
      share.observe(false);
    }
    assertFalse(share.readFirst());
    assertEquals(0, share.share(), "nothing written at the bound");
  }

  @Test
  void aRunOfRetriesSwitchesToReadingFirstWithinAFewCalls() {
    int calls = 0;
    while (!share.readFirst()) {
      share.observe(true);
      calls++;
    }
    assertTrue(calls >= 8 && calls <= 16, "switched after " + calls + " retries");
  }

  @Test
  void aSteadyStreamOfRetriesSettlesOnTheBound() {
    for (int i = 0; i < 1_000; i++) {
      share.observe(true);
    }
    assertEquals(RetryShare.ONE, share.share(), "nothing written once there");
    assertTrue(share.readFirst());
  }

  @Test
  void firstExecutionsReturningSwitchItBack() {
    for (int i = 0; i < 100; i++) {
      share.observe(true);
    }
    int calls = 0;
    while (share.readFirst()) {
      share.observe(false);
      calls++;
    }
    assertTrue(calls >= 16 && calls <= 32, "switched back after " + calls + " first executions");
  }

  @Test
  void aMixNearTheBreakEvenDoesNotFlapEitherWay() {
    // Two calls in five retries (40%): between the thresholds, so it stays as it came.
    for (int round = 0; round < 200; round++) {
      for (int i = 0; i < 5; i++) {
        share.observe(i < 2);
        assertFalse(share.readFirst(), "from claiming first, round " + round);
      }
    }
    for (int i = 0; i < 100; i++) {
      share.observe(true);
    }
    for (int round = 0; round < 200; round++) {
      for (int i = 0; i < 5; i++) {
        share.observe(i < 2);
        assertTrue(share.readFirst(), "from reading first, round " + round);
      }
    }
  }

  @Test
  void mostlyRetriesReadFirstAndMostlyFirstExecutionsClaimFirst() {
    for (int round = 0; round < 200; round++) {
      for (int i = 0; i < 10; i++) {
        share.observe(i < 8); // 80% retries
      }
    }
    assertTrue(share.readFirst());
    for (int round = 0; round < 200; round++) {
      for (int i = 0; i < 10; i++) {
        share.observe(i < 1); // 10% retries
      }
    }
    assertFalse(share.readFirst());
  }
}
