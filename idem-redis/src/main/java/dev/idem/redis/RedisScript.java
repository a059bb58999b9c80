package dev.idem.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script returning an integer (or nil), run by its SHA-1 ({@code EVALSHA}); a node that answers
 * {@code NOSCRIPT} (restarted, new, failed over) is sent the text once ({@code EVAL}, which also loads it there).
 */
final class RedisScript {

  private final String text;
  private final String sha;

  RedisScript(String text) {
    this.text = text;
    this.sha = sha1(text);
  }

  /**
   * @param redis the connection's commands
   * @param keys the script's keys, all in one slot (one hash tag)
   * @param arguments its arguments
   * @return what the script returned; null for nil
   */
  Long run(RedisClusterCommands<String, String> redis, String[] keys, String... arguments) {
    try {
      return redis.evalsha(sha, ScriptOutputType.INTEGER, keys, arguments);
    } catch (RedisNoScriptException e) {
      return redis.eval(text, ScriptOutputType.INTEGER, keys, arguments);
    }
  }

  /** The SHA-1 of a script, as {@code EVALSHA} names it. */
  static String sha1(String script) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (byte b : digest) {
        hex.append(String.format("%02x", b));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
