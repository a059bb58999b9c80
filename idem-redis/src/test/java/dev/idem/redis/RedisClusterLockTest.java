package dev.idem.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.LockLease;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RedisLockProvider} on a real Redis Cluster of three masters with a replica each, started by the test (as
 * {@link RedisClusterTest} starts its cluster, plus {@code --cluster-replicas 1}): locks spread over every master;
 * one master is killed and its replica takes over. What holds, asserted for every lock: it is either still held by
 * its holder (the replica had the lock key: the renewal succeeds, nobody else gets it) or, if the key was lost in the
 * failover, taken again with a greater fencing token (the counter survived) — never handed out again under an
 * earlier token. Replication is asynchronous, so neither is guaranteed in general: a write acknowledged but not yet
 * replicated when the master dies is lost (docs/scheduled-jobs.md); here the writes are half a second old at the
 * kill. The replica is promoted by the cluster's own election; if that has not happened within 20 s (seen on a
 * loaded machine), by {@code CLUSTER FAILOVER TAKEOVER}, as an operator would.
 */
@Timeout(180)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisClusterLockTest {

  private final List<PrivateRedis> nodes = new ArrayList<>();

  @BeforeAll
  void startCluster() throws Exception {
    for (int i = 0; i < 6; i++) {
      nodes.add(new PrivateRedis("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
          "--cluster-node-timeout", "1000").start());
    }
    List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    nodes.forEach(node -> create.add("127.0.0.1:" + node.port()));
    create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    Process process = new ProcessBuilder(create).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, output);
    awaitClusterOk(nodes.get(0));
  }

  @AfterAll
  void stopCluster() throws Exception {
    for (PrivateRedis node : nodes) {
      node.close();
    }
  }

  @Test
  void aMasterKilledLeavesEveryLockHeldOrTakenAgainWithAGreaterToken() throws Exception {
    List<RedisURI> seeds = new ArrayList<>();
    nodes.forEach(node -> seeds.add(node.uri()));
    RedisClusterClient inspector = RedisClusterClient.create(seeds);
    try (RedisLockProvider locks = RedisLockProvider.builder().keyPrefix("cluster-lock-test:")
        .commandTimeout(Duration.ofMillis(500)).connectCluster(seeds);
        StatefulRedisClusterConnection<String, String> inspection = inspector.connect()) {
      // Replicas must have joined before the kill, or there is no failover to observe.
      awaitReplicas(inspection, 3);
      Map<String, LockLease> held = new LinkedHashMap<>();
      for (int i = 0; i < 40; i++) {
        String name = "cl-" + i;
        for (int cycle = 0; cycle < 3; cycle++) {
          LockLease lease = locks.tryAcquire(name, Duration.ofMinutes(1)).orElseThrow();
          assertTrue(locks.release(lease, Duration.ZERO));
        }
        held.put(name, locks.tryAcquire(name, Duration.ofMinutes(1)).orElseThrow());
      }
      String victimName = "cl-0";
      inspector.refreshPartitions(); // the roles as they are now, not as the cluster's formation left them
      int slot = SlotHash.getSlot(locks.lockKey(victimName));
      RedisClusterNode master = inspector.getPartitions().getPartitionBySlot(slot);
      PrivateRedis victim = nodes.stream().filter(node -> node.port() == master.getUri().getPort()).findFirst()
          .orElseThrow();
      List<String> onVictim = new ArrayList<>();
      held.keySet().forEach(name -> {
        if (master.hasSlot(SlotHash.getSlot(locks.lockKey(name)))) {
          onVictim.add(name);
        }
      });
      assertTrue(onVictim.size() > 3 && onVictim.size() < held.size(), "locks spread: " + onVictim);
      // The replicas have the writes (WAIT on every master until one replica acknowledged all of them): this test
      // shows a failover, not a lost write. Without it, a replica still in its first sync was promoted by TAKEOVER
      // once and handed out token 1 after 4: the weakness docs/scheduled-jobs.md describes.
      // The client's view of the roles can be stale on a loaded machine (a WAIT sent to a node it still took for a
      // master failed once): on any refusal, read the topology again and ask every master again.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        inspector.refreshPartitions();
        boolean allCaughtUp = true;
        for (RedisClusterNode node : inspector.getPartitions()) {
          if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
            try {
              allCaughtUp &= inspection.getConnection(node.getUri().getHost(), node.getUri().getPort()).sync()
                  .waitForReplication(1, 1_000) >= 1;
            } catch (io.lettuce.core.RedisException refused) {
              allCaughtUp = false;
            }
          }
        }
        if (allCaughtUp) {
          break;
        }
        assertTrue(System.nanoTime() < deadline, "no replica caught up: " + inspector.getPartitions());
      }
      victim.kill();
      PrivateRedis survivor = nodes.stream().filter(node -> node != victim).findFirst().orElseThrow();
      boolean automatic = awaitFailover(survivor, slot, victim.port(), 20);
      if (!automatic) {
        // On a loaded machine the election can stall (missed pings flag healthy nodes too): promote the victim's
        // replica as an operator would, CLUSTER FAILOVER TAKEOVER. The locks see the same promotion either way.
        forceFailover(victim.port());
        if (!awaitFailover(survivor, slot, victim.port(), 30)) {
          throw new IllegalStateException("no replica took over slot " + slot + ": " + clusterNodes(survivor));
        }
      }

      int stillHeld = 0;
      int takenAgain = 0;
      for (Map.Entry<String, LockLease> entry : held.entrySet()) {
        String name = entry.getKey();
        LockLease lease = entry.getValue();
        boolean renewed = retrying(() -> locks.renew(lease, Duration.ofMinutes(1)));
        if (renewed) {
          stillHeld++;
          assertEquals(Optional.empty(), retrying(() -> locks.tryAcquire(name, Duration.ofMinutes(1))),
              name + " is held: nobody else gets it");
          assertTrue(retrying(() -> locks.release(lease, Duration.ZERO)));
        } else {
          takenAgain++;
        }
        LockLease next = retrying(() -> locks.tryAcquire(name, Duration.ofMinutes(1))).orElseThrow();
        assertTrue(next.fencingToken() > lease.fencingToken(), name + ": " + next + " after " + lease
            + (onVictim.contains(name) ? " (on the killed master)" : ""));
      }
      System.out.println("RedisClusterLockTest: after the " + (automatic ? "automatic" : "forced (TAKEOVER)")
          + " failover of the master of " + onVictim.size() + " locks, "
          + stillHeld + " of " + held.size() + " locks were still held, " + takenAgain + " taken again with a"
          + " greater token");
      assertEquals(held.size(), stillHeld + takenAgain);
    } finally {
      inspector.shutdown();
    }
  }

  /** The cluster's topology moves during a failover: a command may fail until the client follows it. */
  private static <T> T retrying(Supplier<T> call) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        return call.get();
      } catch (IdempotencyStoreException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private static void awaitReplicas(StatefulRedisClusterConnection<String, String> connection, int replicas)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      String nodesText = connection.sync().clusterNodes();
      long connectedReplicas = nodesText.lines().filter(line -> line.contains("slave") && line.contains("connected"))
          .count();
      if (connectedReplicas >= replicas) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the replicas never joined");
  }

  /** Promotes the replica of the master on {@code killedPort}: {@code CLUSTER FAILOVER TAKEOVER} on it. */
  private void forceFailover(int killedPort) throws Exception {
    for (PrivateRedis node : nodes) {
      if (node.port() == killedPort) {
        continue;
      }
      RedisClient client = RedisClient.create(node.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        String nodesText = connection.sync().clusterNodes();
        String victimId = nodesText.lines()
            .filter(line -> line.split(" ")[1].startsWith("127.0.0.1:" + killedPort + "@"))
            .map(line -> line.split(" ")[0]).findFirst().orElseThrow();
        String myself = nodesText.lines().filter(line -> line.split(" ")[2].contains("myself")).findFirst()
            .orElseThrow();
        if (myself.split(" ")[3].equals(victimId)) {
          connection.sync().clusterFailover(false, true);
          return;
        }
      } finally {
        client.shutdown();
      }
    }
    throw new IllegalStateException("the killed master had no replica");
  }

  private static String clusterNodes(PrivateRedis node) {
    RedisClient client = RedisClient.create(node.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return connection.sync().clusterNodes();
    } finally {
      client.shutdown();
    }
  }

  /** Until a surviving node names another master for {@code slot} and the cluster is ok again; false on timeout. */
  private static boolean awaitFailover(PrivateRedis survivor, int slot, int killedPort, int seconds)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    RedisClient client = RedisClient.create(survivor.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      while (System.nanoTime() < deadline) {
        boolean moved = false;
        for (String line : connection.sync().clusterNodes().lines().toList()) {
          String[] fields = line.split(" ");
          if (fields[2].contains("master") && !fields[2].contains("fail") && !fields[1].contains(":" + killedPort)) {
            for (int i = 8; i < fields.length; i++) {
              String[] range = fields[i].split("-");
              if (!range[0].startsWith("[") && Integer.parseInt(range[0]) <= slot
                  && slot <= Integer.parseInt(range[range.length - 1])) {
                moved = true;
              }
            }
          }
        }
        if (moved && connection.sync().clusterInfo().contains("cluster_state:ok")) {
          return true;
        }
        Thread.sleep(100);
      }
    } finally {
      client.shutdown();
    }
    return false;
  }

  private static void awaitClusterOk(PrivateRedis node) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      RedisClient client = RedisClient.create(node.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        if (connection.sync().clusterInfo().contains("cluster_state:ok")) {
          return;
        }
      } catch (RuntimeException notYet) {
        // starting
      } finally {
        client.shutdown();
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the cluster never reached state ok");
  }
}
