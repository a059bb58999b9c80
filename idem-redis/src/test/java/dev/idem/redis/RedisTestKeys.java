package dev.idem.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;

/**
 * A test class's own corner of the shared Redis at 127.0.0.1:6379: a key prefix nobody else uses, and a clean-up
 * that removes only keys under it ({@code SCAN MATCH prefix*} + {@code UNLINK}), never {@code FLUSHDB}.
 */
final class RedisTestKeys implements AutoCloseable {

  static final RedisURI SHARED = RedisURI.create("redis://127.0.0.1:6379");

  final String prefix;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  RedisTestKeys(String testClass) {
    this.prefix = "idem-test:" + testClass + ":" + UUID.randomUUID().toString().substring(0, 8) + ":";
    this.client = RedisClient.create(SHARED);
    this.connection = client.connect();
  }

  RedisCommands<String, String> redis() {
    return connection.sync();
  }

  /** Removes every key under this prefix. */
  void clean() {
    RedisCommands<String, String> redis = connection.sync();
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs match = ScanArgs.Builder.matches(prefix.replace("[", "\\[") + "*").limit(500);
    do {
      KeyScanCursor<String> page = redis.scan(cursor, match);
      if (!page.getKeys().isEmpty()) {
        redis.unlink(page.getKeys().toArray(new String[0]));
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  @Override
  public void close() {
    clean();
    connection.close();
    client.shutdown();
  }
}
