import{e as a}from"./chunks/chunk-KE5AW5ER.js";a();
