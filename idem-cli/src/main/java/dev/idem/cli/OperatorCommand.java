package dev.idem.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** What every subcommand shares: the connection options (mixed in here too), its root, its output. */
abstract class OperatorCommand implements Callable<Integer> {

  @Mixin
  ConnectionOptions connection;

  @ParentCommand
  IdemCli root;

  @Spec
  CommandSpec spec;

  private Session session;

  /** The options in effect: this command's, else the root command's, else the environment's. */
  ConnectionOptions.Resolved options() {
    return connection.resolve(root.connection, root.environment());
  }

  Session session() {
    if (session == null) {
      session = new Session(options());
      root.current(session);
    }
    return session;
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  boolean json() {
    return options().json();
  }
}
