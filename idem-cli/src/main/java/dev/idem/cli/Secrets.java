package dev.idem.cli;

import java.util.regex.Pattern;

/** Keeps passwords out of what the CLI prints: in JDBC URLs, and wherever a driver's message repeats one. */
final class Secrets {

  /** password=..., pwd=..., in a query string or H2's ;KEY=VALUE settings. */
  private static final Pattern URL_PASSWORD =
      Pattern.compile("(?i)([?&;](?:password|pwd|passwd|sslpassword|sslkeypassword|trustCertificateKeyStorePassword"
          + "|clientCertificateKeyStorePassword)=)([^&;]*)");
  /** user:password@host. */
  private static final Pattern USER_INFO = Pattern.compile("(//[^/:@?;]*:)([^@/?;]*)(@)");

  private Secrets() {}

  static String maskUrl(String url) {
    if (url == null) {
      return null;
    }
    String masked = URL_PASSWORD.matcher(url).replaceAll("$1***");
    return USER_INFO.matcher(masked).replaceAll("$1***$3");
  }

  /** A message with every JDBC URL's password, and the given password itself, replaced by ***. */
  static String mask(String message, String password) {
    if (message == null) {
      return null;
    }
    String masked = message;
    if (password != null && password.length() >= 1) {
      masked = masked.replace(password, "***");
    }
    return maskUrl(masked);
  }
}
