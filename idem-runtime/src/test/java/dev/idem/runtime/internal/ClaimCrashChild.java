package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Mode;
import java.time.Duration;

/**
 * The process {@link ClaimCrashTest} kills: it claims a CLAIM command's key, announces that the delegate started, and
 * then works forever. Arguments: JDBC URL, user, password, key.
 */
public final class ClaimCrashChild {

  static final String STARTED = "DELEGATE STARTED";
  static final Duration LEASE = Duration.ofSeconds(2);
  static final CommandSpec<String> CHARGE = CommandSpec.builder("Crash.charge", ResultType.of(String.class))
      .mode(Mode.CLAIM)
      .lease(LEASE)
      .keyParts("id")
      .build();

  private ClaimCrashChild() {}

  public static void main(String[] args) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    if (!args[1].isEmpty()) {
      config.setUsername(args[1]);
      config.setPassword(args[2]);
    }
    config.setMaximumPoolSize(2);
    HikariDataSource dataSource = new HikariDataSource(config);
    IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).build();
    IdemEngine.of(runtime).execute(CHARGE, new Object[] {args[3]}, new Object[0], () -> {
      System.out.println(STARTED);
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE); // "calling the payment gateway" until the parent kills this process
      return "child";
    });
  }
}
