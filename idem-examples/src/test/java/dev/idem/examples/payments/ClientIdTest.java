package dev.idem.examples.payments;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The client id of a bearer token, with the per-thread memo of the last token in between. */
class ClientIdTest {

  private static String expected(String token) throws Exception {
    byte[] hash = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    return "client-" + HexFormat.of().formatHex(hash, 0, 8);
  }

  @Test
  void alternatingTokensOnOneThreadEachGetTheirOwnId() throws Exception {
    for (String token : new String[] {"alice", "alice", "bob", "alice", "bob", "bob", "alice-2"}) {
      assertEquals(expected(token), PaymentsApi.clientIdOf(token), token);
    }
  }

  @Test
  void otherThreadsDoNotSeeThisThreadsToken() throws Exception {
    PaymentsApi.clientIdOf("carol");
    String[] seen = new String[1];
    Thread other = new Thread(() -> seen[0] = PaymentsApi.clientIdOf("dave"));
    other.start();
    other.join();
    assertEquals(expected("dave"), seen[0]);
    assertEquals(expected("carol"), PaymentsApi.clientIdOf("carol"));
  }
}
