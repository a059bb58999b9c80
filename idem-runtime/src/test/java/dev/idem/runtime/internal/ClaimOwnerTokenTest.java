package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The owner tokens of CLAIM calls: random version 4 UUIDs, from a source of each thread's own. */
class ClaimOwnerTokenTest {

  @Test
  void tokensAreRandomVersion4UuidsDistinctAcrossThreads() throws Exception {
    Set<String> tokens = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        runs.add(pool.submit(() -> {
          for (int i = 0; i < 10_000; i++) {
            String token = ClaimExecutor.newOwnerToken();
            assertEquals(36, token.length());
            UUID uuid = UUID.fromString(token);
            assertEquals(4, uuid.version());
            assertEquals(2, uuid.variant());
            tokens.add(token);
          }
        }));
      }
      for (Future<?> run : runs) {
        run.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(80_000, tokens.size());
  }
}
