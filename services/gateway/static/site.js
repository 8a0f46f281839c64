import{d as a}from"./chunks/chunk-JZ6JDSWH.js";a();
