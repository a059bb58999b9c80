package dev.idem.benchmarks.jmh;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.idem.benchmarks.jmh.BenchOrders.OrderReceipt;
import dev.idem.benchmarks.jmh.BenchOrders.PlaceOrder;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;
import javax.sql.DataSource;

/**
 * The floor of a replay without cache, written by hand on idem's own record: what any implementation that keeps
 * idem's replay guarantees must do when a key comes back. One SELECT of the key's row (idem's columns, by its primary
 * key) in auto-commit mode, the state checked (only a completed key replays), the payload's fingerprint computed and
 * compared with the stored one (a reused key with another payload must be refused), and the stored JSON read into
 * the result type. It leaves out what idem's replay adds on top: idem first tries to claim the key (its path is
 * written for first executions, the common case) and reads the record after the claim found it.
 */
final class HandWrittenReplay {

  private static final String SELECT = "SELECT state, fingerprint, result, error_type, expires_at FROM idem_record"
      + " WHERE scope = ? AND idem_key = ?";

  /**
   * The canonical form idem fingerprints, for this payload's types: the object of payload name to value, properties
   * sorted by name (records' too), so that the fingerprint equals the one idem stored.
   */
  private static final ObjectMapper CANONICAL = JsonMapper.builder()
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
      .build();
  private static final ObjectMapper RESULTS = new ObjectMapper();

  private final DataSource dataSource;
  private final String scope;

  HandWrittenReplay(DataSource dataSource, String scope) {
    this.dataSource = dataSource;
    this.scope = scope;
  }

  OrderReceipt replay(String key, PlaceOrder order) throws SQLException {
    String fingerprint = fingerprint(order);
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(SELECT)) {
      select.setString(1, scope);
      select.setString(2, key);
      try (ResultSet row = select.executeQuery()) {
        if (!row.next() || !"COMPLETED".equals(row.getString(1)) || row.getString(4) != null) {
          throw new IllegalStateException("The replay floor expects a completed key with a result: " + key);
        }
        if (!fingerprint.equals(row.getString(2))) {
          throw new IllegalStateException("Key " + key + " was used with another payload");
        }
        if (row.getLong(5) <= System.currentTimeMillis()) {
          throw new IllegalStateException("Key " + key + " expired");
        }
        return RESULTS.readValue(row.getString(3), OrderReceipt.class);
      } catch (IOException e) {
        throw new UncheckedIOException("Stored result of " + key + " is not an OrderReceipt", e);
      }
    }
  }

  /** SHA-256 of the canonical JSON {@code {"command": order}}, fed to the digest as it is written, in hex. */
  static String fingerprint(PlaceOrder order) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every JVM has SHA-256", e);
    }
    try (OutputStream sink = new DigestOutputStream(OutputStream.nullOutputStream(), sha256);
        JsonGenerator json = CANONICAL.createGenerator(sink)) {
      json.writeStartObject();
      json.writeFieldName("command");
      CANONICAL.writeValue(json, order);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return HexFormat.of().formatHex(sha256.digest());
  }
}
