package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * An ordered relay's share of the key-hash partitions ({@code idem_outbox_partition}): each round it renews its
 * heartbeat ({@code idem_outbox_relay}) and its partitions' leases, gives up those above its fair share (the
 * partitions divided by the live relays, rounded up) and takes free or expired ones up to it, each takeover
 * increasing the partition's epoch. A renewal refused (the lease ended and another relay took the partition) drops
 * the partition at once. {@link #markable} fences the marks: in the marking transaction the partition's row is
 * locked and must still name this relay and epoch. Every time is the database's (lease ends) or the monotonic
 * clock's ({@link #held}: a partition whose lease may have ended by now is not published from).
 */
final class OutboxPartitions {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  private final DataSource dataSource;
  private final SqlDialect dialect;
  private final int partitions;
  private final long leaseMillis;
  final String relayId = UUID.randomUUID().toString();
  /** Owned partition to its epoch. */
  private final Map<Integer, Long> owned = new TreeMap<>();
  /** Owned partition to the System.nanoTime() before which its lease surely holds. */
  private final Map<Integer, Long> heldUntilNanos = new TreeMap<>();
  private boolean created;
  private boolean joined;

  OutboxPartitions(DataSource dataSource, SqlDialect dialect, int partitions, long leaseMillis) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.partitions = partitions;
    this.leaseMillis = leaseMillis;
  }

  int count() {
    return partitions;
  }

  /** The partitions this relay owns now, in order. */
  List<Integer> owned() {
    return new ArrayList<>(owned.keySet());
  }

  Set<Integer> ownedSet() {
    return owned.keySet();
  }

  /** Whether the lease of {@code partition} surely still holds (a third of it kept as a margin). */
  boolean held(int partition) {
    Long until = heldUntilNanos.get(partition);
    return until != null && System.nanoTime() - until < 0;
  }

  /** One round of ownership: heartbeat, renewals, fair share. Auto-commit statements. */
  void maintain() throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      if (!created) {
        createRows(connection);
        created = true;
      }
      beat(connection);
      long live = Math.max(1, single(connection, dialect.outboxLiveRelaysSql()));
      int share = (int) ((partitions + live - 1) / live);
      for (Integer partition : owned()) {
        long started = System.nanoTime();
        try (PreparedStatement renew = connection.prepareStatement(dialect.outboxPartitionRenewSql())) {
          renew.setLong(1, leaseMillis);
          renew.setInt(2, partition);
          renew.setString(3, relayId);
          renew.setLong(4, owned.get(partition));
          if (renew.executeUpdate() == 1) {
            heldUntilNanos.put(partition, started + leaseMillis * 2 / 3 * 1_000_000L);
          } else {
            owned.remove(partition);
            heldUntilNanos.remove(partition);
          }
        }
      }
      List<Integer> mine = owned();
      for (int i = mine.size() - 1; i >= share; i--) {
        release(connection, mine.get(i));
      }
      if (owned.size() < share) {
        List<Integer> free = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(dialect.outboxFreePartitionsSql())) {
          select.setInt(1, partitions);
          try (ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
              free.add(rs.getInt(1));
            }
          }
        }
        // Start at a place of this relay's own, so that relays starting together do not all race for partition 0.
        int offset = free.isEmpty() ? 0 : Math.floorMod(relayId.hashCode(), free.size());
        for (int i = 0; i < free.size() && owned.size() < share; i++) {
          take(connection, free.get((offset + i) % free.size()));
        }
      }
    }
  }

  private void createRows(Connection connection) throws SQLException {
    for (int partition = 0; partition < partitions; partition++) {
      try (PreparedStatement insert = connection.prepareStatement(dialect.outboxPartitionCreateSql())) {
        insert.setInt(1, partition);
        insert.setInt(2, partition);
        insert.executeUpdate();
      } catch (SQLException e) {
        if (!dialect.isDuplicateKey(e)) {
          throw e;
        }
      }
    }
  }

  private void beat(Connection connection) throws SQLException {
    if (joined) {
      try (PreparedStatement beat = connection.prepareStatement(dialect.outboxRelayBeatSql())) {
        beat.setLong(1, leaseMillis);
        beat.setString(2, relayId);
        if (beat.executeUpdate() == 1) {
          return;
        }
      }
    }
    try (PreparedStatement join = connection.prepareStatement(dialect.outboxRelayJoinSql())) {
      join.setString(1, relayId);
      join.setLong(2, leaseMillis);
      join.executeUpdate();
      joined = true;
    }
    try (PreparedStatement dead = connection.prepareStatement(dialect.outboxDeadRelaysSql())) {
      dead.executeUpdate();
    }
  }

  private void take(Connection connection, int partition) throws SQLException {
    long started = System.nanoTime();
    try (PreparedStatement take = connection.prepareStatement(dialect.outboxPartitionTakeSql())) {
      take.setString(1, relayId);
      take.setLong(2, leaseMillis);
      take.setInt(3, partition);
      if (take.executeUpdate() != 1) {
        return; // another relay was quicker
      }
    }
    try (PreparedStatement read = connection.prepareStatement(dialect.outboxPartitionReadSql(false))) {
      read.setInt(1, partition);
      try (ResultSet rs = read.executeQuery()) {
        if (rs.next() && relayId.equals(rs.getString(1))) {
          owned.put(partition, rs.getLong(2));
          heldUntilNanos.put(partition, started + leaseMillis * 2 / 3 * 1_000_000L);
        }
      }
    }
  }

  private void release(Connection connection, int partition) throws SQLException {
    try (PreparedStatement release = connection.prepareStatement(dialect.outboxPartitionReleaseSql())) {
      release.setInt(1, partition);
      release.setString(2, relayId);
      release.setLong(3, owned.get(partition));
      release.executeUpdate();
    }
    owned.remove(partition);
    heldUntilNanos.remove(partition);
  }

  /**
   * In the marking transaction on {@code connection}: locks {@code partition}'s row and says whether it still names
   * this relay with the epoch it took it with. A takeover waits for this transaction; a takeover before it fails this.
   */
  boolean markable(Connection connection, int partition) throws SQLException {
    Long epoch = owned.get(partition);
    if (epoch == null) {
      return false;
    }
    try (PreparedStatement read = connection.prepareStatement(dialect.outboxPartitionReadSql(true))) {
      read.setInt(1, partition);
      try (ResultSet rs = read.executeQuery()) {
        return rs.next() && relayId.equals(rs.getString(1)) && rs.getLong(2) == epoch;
      }
    }
  }

  /** Gives every partition and the heartbeat up (a relay closing). */
  void leave() {
    try (Connection connection = dataSource.getConnection()) {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true);
      }
      for (Integer partition : owned()) {
        release(connection, partition);
      }
      try (PreparedStatement leave = connection.prepareStatement(dialect.outboxRelayLeaveSql())) {
        leave.setString(1, relayId);
        leave.executeUpdate();
      }
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.DEBUG, "Giving the outbox partitions up failed; their leases end by themselves", e);
    }
  }

  private static long single(Connection connection, String sql) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql); ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
