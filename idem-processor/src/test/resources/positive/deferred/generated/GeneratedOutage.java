package com.example.shop.generated;

public class GeneratedOutage extends Exception {

  private static final long serialVersionUID = 1L;

  public GeneratedOutage(String message) {
    super(message);
  }
}
